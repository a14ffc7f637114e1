// The host side of MCP Apps (extension io.modelcontextprotocol/ui) for toolwire's inspector.
// jitless.js must stay the first import: it configures zod before any schema is built.
import "./jitless.js";

export {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  buildAllowAttribute,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";
