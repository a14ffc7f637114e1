"""The names ``mcp.types`` of the official SDK (1.x and 2.x) gives that the schemas do not:
error codes, version and ``_meta`` constants, and the aliases both SDKs use."""

from __future__ import annotations

from typing import Any, Literal

from ..jsonrpc import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from ..jsonrpc import MISSING_CLIENT_CAPABILITY as MISSING_REQUIRED_CLIENT_CAPABILITY
from ..protocol.revisions import (
    LATEST,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
)
from .client_features import CreateMessageResult, ElicitationCompleteNotification
from .content import AudioContent, ContentBlock, ImageContent, TextContent
from .messages import (
    ClientNotification,
    ClientRequest,
    ClientResult,
    Error,
    ServerNotification,
    ServerRequest,
    ServerResult,
)

# JSON-RPC error codes, and MCP's own.
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
URL_ELICITATION_REQUIRED = -32042

JSONRPC_VERSION = "2.0"
LATEST_PROTOCOL_VERSION = LATEST
# The revision a server assumes when an HTTP client sends no MCP-Protocol-Version header.
DEFAULT_NEGOTIATED_VERSION = "2025-03-26"
PROTOCOL_VERSION_META_KEY = META_PROTOCOL_VERSION
CLIENT_CAPABILITIES_META_KEY = META_CLIENT_CAPABILITIES
CLIENT_INFO_META_KEY = META_CLIENT_INFO
SERVER_INFO_META_KEY = META_SERVER_INFO
LOG_LEVEL_META_KEY = META_LOG_LEVEL
# The ``resultType`` values of 2026-07-28.
CORE_RESULT_TYPES = frozenset({"complete", "input_required"})

TaskExecutionMode = Literal["forbidden", "optional", "required"]
TASK_FORBIDDEN = "forbidden"
TASK_OPTIONAL = "optional"
TASK_REQUIRED = "required"
TASK_STATUS_WORKING = "working"
TASK_STATUS_INPUT_REQUIRED = "input_required"
TASK_STATUS_COMPLETED = "completed"
TASK_STATUS_FAILED = "failed"
TASK_STATUS_CANCELLED = "cancelled"

# Both SDKs call the error object ErrorData; 2.x names the notification without "ation".
ErrorData = Error
ElicitCompleteNotification = ElicitationCompleteNotification
# One model serves both shapes of a sampling result (single content, or a list with tools).
CreateMessageResultWithTools = CreateMessageResult
Content = ContentBlock  # the 1.x name
SamplingContent = TextContent | ImageContent | AudioContent
IconTheme = Literal["light", "dark"]
IncludeContext = Literal["none", "thisServer", "allServers"]
StopReason = Literal["endTurn", "stopSequence", "maxTokens", "toolUse"] | str
ElicitRequestedSchema = dict[str, Any]
RequestParamsMeta = dict[str, Any]
# The 1.x names of the method unions.
ClientRequestType = ClientRequest
ClientNotificationType = ClientNotification
ClientResultType = ClientResult
ServerRequestType = ServerRequest
ServerNotificationType = ServerNotification
ServerResultType = ServerResult

__all__ = [
    "CLIENT_CAPABILITIES_META_KEY",
    "CLIENT_INFO_META_KEY",
    "CONNECTION_CLOSED",
    "CORE_RESULT_TYPES",
    "DEFAULT_NEGOTIATED_VERSION",
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "LATEST_PROTOCOL_VERSION",
    "LOG_LEVEL_META_KEY",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "PROTOCOL_VERSION_META_KEY",
    "REQUEST_TIMEOUT",
    "SERVER_INFO_META_KEY",
    "TASK_FORBIDDEN",
    "TASK_OPTIONAL",
    "TASK_REQUIRED",
    "TASK_STATUS_CANCELLED",
    "TASK_STATUS_COMPLETED",
    "TASK_STATUS_FAILED",
    "TASK_STATUS_INPUT_REQUIRED",
    "TASK_STATUS_WORKING",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "ClientNotificationType",
    "ClientRequestType",
    "ClientResultType",
    "Content",
    "CreateMessageResultWithTools",
    "ElicitCompleteNotification",
    "ElicitRequestedSchema",
    "ErrorData",
    "IconTheme",
    "IncludeContext",
    "RequestParamsMeta",
    "SamplingContent",
    "ServerNotificationType",
    "ServerRequestType",
    "ServerResultType",
    "StopReason",
    "TaskExecutionMode",
]
