"""Where each import of the official ``mcp`` SDK (1.x and 2.x) and of FastMCP goes in toolwire:
the one source of ``toolwire migrate`` and of the import table in docs/migrating.md
(``python -m toolwire.cli.migrate.doc`` writes it there).

Each row is ``(module, name, target module, target name, section, note)``:

* ``name`` ``"*"`` stands for every name of the module that no other row lists: it keeps its
  name in the target module, and ``import module as alias`` becomes ``import target as alias``.
* an empty target module: no counterpart on purpose; ``note`` says what to write instead.
* a target in the standard library (``logging.getLogger`` for the incumbents' ``get_logger``):
  what the incumbent's name wraps.
* ``section``: the heading of docs/migrating.md that explains the move (its anchor).

Whether a target exists is decided when ``toolwire migrate`` runs (the target module is
imported and the name looked up), so a row may name what toolwire does not offer yet: such a
use is reported, not rewritten.
"""

from __future__ import annotations

SDK = "from-the-official-mcp-sdk"
LOWLEVEL = "the-low-level-server"
CLIENTS = "clients"
OPTIONS = "the-sdks-server-options"
FASTMCP = "from-the-standalone-fastmcp-package"

CLIENT_SESSION = (
    "toolwire.Client(target) is the session: it connects, negotiates the revision and offers "
    "list_tools()/call_tool()"
)
CLIENT_STDIO = 'toolwire.Client(["python", "server.py"]) starts the command and speaks stdio'
CLIENT_HTTP = 'toolwire.Client("http://host/mcp") speaks Streamable HTTP'
SDK_AUTH = (
    "toolwire takes the SDK's AuthSettings(...) with token_verifier= and calls the verifier "
    "as the SDK does: keep this import, or use toolwire.auth (ResourceServer, JWTVerifier)"
)
ACCESS_TOKEN = "a Context parameter's ctx.access_token holds the verified token's claims"
NO_SSE = (
    "the HTTP+SSE transport is deprecated in the protocol; toolwire speaks Streamable HTTP: "
    'run(transport="streamable-http"), Client(url)'
)

VERSION_SPEC = (
    "name the versions to switch with keys={'tool:name@1.0'} in mcp.enable()/mcp.disable()"
)
CODE_MODE = (
    "toolwire runs no model-written code; mcp.enable_tool_search() shows the model "
    "search_tools and call_tool instead of the whole catalogue"
)
MCP_CONFIG = (
    'Client and Host take the {"mcpServers": {...}} dict, or the path of its JSON file, as they are'
)

ROWS: tuple[tuple[str, str, str, str, str, str], ...] = (
    # mcp 1.x: the decorator server
    ("mcp.server.fastmcp", "FastMCP", "toolwire", "Server", SDK, ""),
    ("mcp.server.fastmcp", "*", "toolwire", "", SDK, ""),
    ("mcp.server.fastmcp.server", "FastMCP", "toolwire", "Server", SDK, ""),
    ("mcp.server.fastmcp.server", "*", "toolwire", "", SDK, ""),
    ("mcp.server.fastmcp.exceptions", "*", "toolwire", "", SDK, ""),
    ("mcp.server.fastmcp.utilities.types", "*", "toolwire", "", SDK, ""),
    ("mcp.server.fastmcp.utilities.logging", "get_logger", "logging", "getLogger", SDK, ""),
    ("mcp.server.fastmcp.tools", "Tool", "toolwire", "Tool", SDK, ""),
    ("mcp.server.fastmcp.tools.base", "Tool", "toolwire", "Tool", SDK, ""),
    ("mcp.server.fastmcp.prompts", "base", "toolwire", "prompts", SDK, ""),
    ("mcp.server.fastmcp.prompts.base", "*", "toolwire.prompts", "", SDK, ""),
    # mcp 2.x: the same server, renamed
    ("mcp.server.mcpserver", "MCPServer", "toolwire", "Server", SDK, ""),
    ("mcp.server.mcpserver", "*", "toolwire", "", SDK, ""),
    ("mcp.server.mcpserver.server", "MCPServer", "toolwire", "Server", SDK, ""),
    ("mcp.server.mcpserver.server", "*", "toolwire", "", SDK, ""),
    ("mcp.server.mcpserver.context", "*", "toolwire", "", SDK, ""),
    ("mcp.server.mcpserver.exceptions", "*", "toolwire", "", SDK, ""),
    ("mcp.server.mcpserver.utilities.types", "*", "toolwire", "", SDK, ""),
    ("mcp.server.mcpserver.utilities.logging", "get_logger", "logging", "getLogger", SDK, ""),
    ("mcp.server.mcpserver.tools", "Tool", "toolwire", "Tool", SDK, ""),
    ("mcp.server.mcpserver.tools.base", "Tool", "toolwire", "Tool", SDK, ""),
    ("mcp.server.mcpserver.prompts", "base", "toolwire", "prompts", SDK, ""),
    ("mcp.server.mcpserver.prompts.base", "*", "toolwire.prompts", "", SDK, ""),
    ("mcp.server", "MCPServer", "toolwire", "Server", SDK, ""),
    ("mcp.server", "*", "toolwire.lowlevel", "", LOWLEVEL, ""),
    # the low-level server and the types
    ("mcp.server.lowlevel", "*", "toolwire.lowlevel", "", LOWLEVEL, ""),
    ("mcp.server.lowlevel.server", "*", "toolwire.lowlevel", "", LOWLEVEL, ""),
    ("mcp.server.lowlevel.helper_types", "*", "toolwire.lowlevel", "", LOWLEVEL, ""),
    ("mcp.server.models", "*", "toolwire.lowlevel", "", LOWLEVEL, ""),
    ("mcp.server.context", "*", "toolwire.lowlevel", "", LOWLEVEL, ""),
    ("mcp.server.stdio", "*", "toolwire.lowlevel.stdio", "", LOWLEVEL, ""),
    ("mcp.server.session", "*", "toolwire.server", "", LOWLEVEL, ""),
    ("mcp.shared.exceptions", "*", "toolwire.errors", "", LOWLEVEL, ""),
    ("mcp.types", "*", "toolwire.types", "", LOWLEVEL, ""),
    ("mcp", "types", "toolwire", "types", LOWLEVEL, ""),
    ("mcp", "McpError", "toolwire.errors", "McpError", LOWLEVEL, ""),
    ("mcp", "MCPError", "toolwire.errors", "MCPError", LOWLEVEL, ""),
    ("mcp", "UrlElicitationRequiredError", "toolwire.errors", "", LOWLEVEL, ""),
    ("mcp", "ServerSession", "toolwire.server", "ServerSession", LOWLEVEL, ""),
    ("mcp", "stdio_server", "toolwire.lowlevel.stdio", "stdio_server", LOWLEVEL, ""),
    # clients
    ("mcp", "Client", "toolwire", "Client", CLIENTS, ""),
    ("mcp", "ClientSession", "", "", CLIENTS, CLIENT_SESSION),
    ("mcp", "stdio_client", "", "", CLIENTS, CLIENT_STDIO),
    ("mcp", "StdioServerParameters", "", "", CLIENTS, CLIENT_STDIO),
    ("mcp", "*", "toolwire.types", "", LOWLEVEL, ""),
    ("mcp.client", "Client", "toolwire", "Client", CLIENTS, ""),
    ("mcp.client", "ClientSession", "", "", CLIENTS, CLIENT_SESSION),
    ("mcp.client.client", "Client", "toolwire", "Client", CLIENTS, ""),
    ("mcp.client.session", "ClientSession", "", "", CLIENTS, CLIENT_SESSION),
    ("mcp.client.stdio", "*", "", "", CLIENTS, CLIENT_STDIO),
    ("mcp.client.streamable_http", "*", "", "", CLIENTS, CLIENT_HTTP),
    ("mcp.client.sse", "*", "", "", CLIENTS, NO_SSE),
    ("mcp.server.sse", "*", "", "", SDK, NO_SSE),
    # authorization
    ("mcp.server.auth.settings", "*", "", "", OPTIONS, SDK_AUTH),
    ("mcp.server.auth.provider", "*", "", "", OPTIONS, SDK_AUTH),
    ("mcp.server.auth.middleware.auth_context", "*", "", "", OPTIONS, ACCESS_TOKEN),
    # FastMCP 2 and 3
    ("fastmcp", "FastMCP", "toolwire", "FastMCP", FASTMCP, ""),
    ("fastmcp", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server", "FastMCP", "toolwire", "FastMCP", FASTMCP, ""),
    ("fastmcp.server", "create_proxy", "toolwire.proxy", "proxy", FASTMCP, ""),
    ("fastmcp.server", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.server", "FastMCP", "toolwire", "FastMCP", FASTMCP, ""),
    ("fastmcp.server.context", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.dependencies", "get_access_token", "", "", FASTMCP, ACCESS_TOKEN),
    ("fastmcp.server.dependencies", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.dependencies", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.exceptions", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.utilities.types", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.utilities.logging", "get_logger", "logging", "getLogger", FASTMCP, ""),
    ("fastmcp.tools", "FunctionTool", "toolwire", "Tool", FASTMCP, ""),
    ("fastmcp.tools", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.tools.tool", "TextContent", "toolwire.types", "TextContent", FASTMCP, ""),
    ("fastmcp.tools.tool", "ImageContent", "toolwire.types", "ImageContent", FASTMCP, ""),
    ("fastmcp.tools.tool", "AudioContent", "toolwire.types", "AudioContent", FASTMCP, ""),
    ("fastmcp.tools.tool", "EmbeddedResource", "toolwire.types", "EmbeddedResource", FASTMCP, ""),
    ("fastmcp.tools.tool", "ResourceLink", "toolwire.types", "ResourceLink", FASTMCP, ""),
    ("fastmcp.tools.tool", "ContentBlock", "toolwire.types", "ContentBlock", FASTMCP, ""),
    ("fastmcp.tools.tool", "ToolAnnotations", "toolwire.types", "ToolAnnotations", FASTMCP, ""),
    ("fastmcp.tools.tool", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.tools.function_tool", "FunctionTool", "toolwire", "Tool", FASTMCP, ""),
    ("fastmcp.prompts", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.prompts.prompt", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.transforms", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.transforms.prompts_as_tools", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.transforms.resources_as_tools", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.elicitation", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.tools.base", "*", "toolwire", "", FASTMCP, ""),
    ("fastmcp.resources", "resource", "toolwire", "resource", FASTMCP, ""),
    ("fastmcp.server.providers", "FileSystemProvider", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.providers.filesystem", "FileSystemProvider", "toolwire", "", FASTMCP, ""),
    ("fastmcp.server.providers.skills", "SkillsDirectoryProvider", "toolwire", "", FASTMCP, ""),
    ("fastmcp.utilities.tasks", "TaskConfig", "toolwire", "TaskConfig", FASTMCP, ""),
    ("fastmcp_tasks", "TasksExtension", "toolwire", "TasksExtension", FASTMCP, ""),
    ("mcp_types", "*", "toolwire.types", "", FASTMCP, ""),
    ("fastmcp.experimental.transforms.code_mode", "CodeMode", "", "", FASTMCP, CODE_MODE),
    ("fastmcp.utilities.versions", "VersionSpec", "", "", FASTMCP, VERSION_SPEC),
    ("fastmcp.mcp_config", "*", "", "", CLIENTS, MCP_CONFIG),
    ("fastmcp.client", "Client", "toolwire", "Client", CLIENTS, ""),
    ("fastmcp.client.transports", "*", "", "", CLIENTS, CLIENT_STDIO + "; " + CLIENT_HTTP),
)
