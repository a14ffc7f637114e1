"""The tables ``generate_types.py`` follows: where each definition goes, which nested
objects have names of their own, and the few hand-made choices."""

# The modules, in import order: a module imports only from those before it. A definition is
# placed by the first pattern it matches; one that an earlier module needs moves there.
AREAS: list[tuple[str, str, str]] = [
    (
        "base_types",
        "The building blocks: ids, cursors, annotations, icons, the request, notification "
        "and result envelopes and the error object.",
        r"^(JSON(Value|Object|Array)|RequestId|ProgressToken|Cursor|Role|LoggingLevel|Annotated"
        r"|Annotations|Icon|Icons|IconTheme|BaseMetadata|Implementation|Error|ResultType|Result"
        r"|EmptyResult|CacheableResult|RequestParams|NotificationParams|Request|Notification"
        r"|Paginated.*|TaskAugmentedRequestParams|TaskMetadata|RelatedTaskMetadata)$",
    ),
    (
        "content",
        "Content blocks and resource contents.",
        r"^(TextContent|ImageContent|AudioContent|ResourceLink|EmbeddedResource|ContentBlock"
        r"|.*ResourceContents|ToolUseContent|ToolResultContent|SamplingContent|SamplingMessage.*)$",
    ),
    (
        "tools",
        "Tool definitions (sampling requests carry them too).",
        r"^(Tool|ToolAnnotations|ToolExecution|ToolChoice)$",
    ),
    (
        "client_features",
        "What a server asks of the client: sampling (the client's model), elicitation (the "
        "user, through a form or a URL), roots, and the input requests of multi round-trip "
        "results (2026-07-28).",
        r"^(CreateMessage.*|Model.*|IncludeContext|StopReason|Sampling.*|Elicit.*|.*Schema"
        r"|PrimitiveSchemaDefinition|URLElicitation.*|.*Elicitation.*|Root.*|ListRoots.*|Input.*)$",
    ),
    ("calls", "Tool calls and listings.", r"^(.*Tool.*)$"),
    (
        "resources",
        "Resources, templates, reading and subscriptions.",
        r"^(.*Resource.*|.*[Ss]ubscribe.*)$",
    ),
    ("prompts", "Prompts, and argument completion.", r"^(.*Prompt.*|Complet.*|.*Reference)$"),
    (
        "tasks",
        "Tasks: long-running requests the receiver answers later (2025-11-25).",
        r"^(Task.*|.*Task|.*Tasks?(Request|Result|Notification)(Params)?|CreateTaskResult"
        r"|GetTaskPayload.*)$",
    ),
    (
        "capabilities",
        "Capabilities, and the metadata objects that carry them (2026-07-28).",
        r"^(.*Capabilit.*|.*MetaObject)$",
    ),
    (
        "lifecycle",
        "Initialization, discovery, ping, progress, cancellation, logging and subscriptions.",
        r"^(Initiali[sz]e.*|Discover.*|Ping.*|Progress.*|Cancelled.*|Logging.*|SetLevel.*"
        r"|Subscriptions?.*)$",
    ),
    ("messages", "JSON-RPC messages, the method unions and the protocol errors.", r".*"),
]

# Nested objects with names of their own: the path of the object -> its model's name.
INLINE = {
    "ClientCapabilities.elicitation": "ElicitationCapability",
    "ClientCapabilities.elicitation.form": "FormElicitationCapability",
    "ClientCapabilities.elicitation.url": "UrlElicitationCapability",
    "ClientCapabilities.roots": "RootsCapability",
    "ClientCapabilities.sampling": "SamplingCapability",
    "ClientCapabilities.sampling.context": "SamplingContextCapability",
    "ClientCapabilities.sampling.tools": "SamplingToolsCapability",
    "ClientCapabilities.tasks": "ClientTasksCapability",
    "ClientCapabilities.tasks.cancel": "TasksCancelCapability",
    "ClientCapabilities.tasks.list": "TasksListCapability",
    "ClientCapabilities.tasks.requests": "ClientTasksRequestsCapability",
    "ClientCapabilities.tasks.requests.elicitation": "TasksElicitationCapability",
    "ClientCapabilities.tasks.requests.elicitation.create": "TasksCreateElicitationCapability",
    "ClientCapabilities.tasks.requests.sampling": "TasksSamplingCapability",
    "ClientCapabilities.tasks.requests.sampling.createMessage": "TasksCreateMessageCapability",
    "ServerCapabilities.completions": "CompletionsCapability",
    "ServerCapabilities.logging": "LoggingCapability",
    "ServerCapabilities.prompts": "PromptsCapability",
    "ServerCapabilities.resources": "ResourcesCapability",
    "ServerCapabilities.tools": "ToolsCapability",
    "ServerCapabilities.tasks": "ServerTasksCapability",
    "ServerCapabilities.tasks.cancel": "TasksCancelCapability",
    "ServerCapabilities.tasks.list": "TasksListCapability",
    "ServerCapabilities.tasks.requests": "ServerTasksRequestsCapability",
    "ServerCapabilities.tasks.requests.tools": "TasksToolsCapability",
    "ServerCapabilities.tasks.requests.tools.call": "TasksCallCapability",
    "CompleteRequest.params.argument": "CompletionArgument",
    "CompleteRequest.params.context": "CompletionContext",
    "CompleteRequestParams.argument": "CompletionArgument",
    "CompleteRequestParams.context": "CompletionContext",
    "CompleteResult.completion": "Completion",
    "CancelTaskRequest.params": "CancelTaskRequestParams",
    "GetTaskRequest.params": "GetTaskRequestParams",
    "GetTaskPayloadRequest.params": "GetTaskPayloadRequestParams",
    "ElicitationCompleteNotification.params": "ElicitCompleteNotificationParams",
    "ElicitRequest.params": "ElicitRequestFormParams",
    "JSONRPCError.error": "Error",
    "URLElicitationRequiredError.error.allOf1.data": "ElicitationRequiredErrorData",
    "MissingRequiredClientCapabilityError.error.allOf1.data": (
        "MissingRequiredClientCapabilityErrorData"
    ),
    "UnsupportedProtocolVersionError.error.allOf1.data": "UnsupportedProtocolVersionErrorData",
    "Annotated.annotations": "Annotations",
    "TextContent.annotations": "Annotations",
    "ImageContent.annotations": "Annotations",
    "EmbeddedResource.annotations": "Annotations",
    "Resource.annotations": "Annotations",
    "ResourceTemplate.annotations": "Annotations",
    "PaginatedRequest.params": "PaginatedRequestParams",
    "ListToolsRequest.params": "PaginatedRequestParams",
    "ListPromptsRequest.params": "PaginatedRequestParams",
    "ListResourcesRequest.params": "PaginatedRequestParams",
    "ListResourceTemplatesRequest.params": "PaginatedRequestParams",
    "Request.params": "RequestParams",
    "PingRequest.params": "RequestParams",
    "ListRootsRequest.params": "RequestParams",
    "Notification.params": "NotificationParams",
    "InitializedNotification.params": "NotificationParams",
    "PromptListChangedNotification.params": "NotificationParams",
    "ResourceListChangedNotification.params": "NotificationParams",
    "RootsListChangedNotification.params": "NotificationParams",
    "ToolListChangedNotification.params": "NotificationParams",
}
# Names that are an object in some revisions and a union in others: the model the object
# is one shape of (the union holds it).
OBJECT_AS = {
    "EnumSchema": "LegacyTitledEnumSchema",  # 2025-06-18's enum with enumNames
    "JSONRPCResponse": "JSONRPCResultResponse",  # a success response before 2025-11-25
}
# Aliases written by hand (recursive JSON values are plain Python values).
FIXED_ALIASES = {
    "JSONValue": "Any",
    "JSONObject": "dict[str, Any]",
    "JSONArray": "list[Any]",
}
# Defaults kept from the hand-written models earlier releases had (a result with no content
# is an empty list; a tool without an input schema takes no arguments).
DEFAULTS = {
    ("CallToolResult", "content"): "Field(default_factory=list, alias='content')",
    ("ReadResourceResult", "contents"): "Field(default_factory=list, alias='contents')",
    ("GetPromptResult", "messages"): "Field(default_factory=list, alias='messages')",
    ("Completion", "values"): "Field(default_factory=list, alias='values')",
    ("Tool", "inputSchema"): ("Field(default_factory=_no_arguments, alias='inputSchema')"),
    # the official SDK's InputRequiredResult(input_requests=...) says what it is by its type
    ("InputRequiredResult", "resultType"): "Field(default='input_required', alias='resultType')",
}
