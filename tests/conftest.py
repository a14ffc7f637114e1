import sys
from pathlib import Path

# Test helpers (mcp_spec, wire) import each other as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))
