"""The client side: connect to any MCP server and use its tools, resources and prompts."""

from .client import CallResult, Client
from .dpop import DPoPKey
from .host import Host
from .oauth import OAuth
from .oauth_machine import ClientCredentials, EnterpriseAuthorization, WorkloadIdentity
from .primitives import Completion, PromptResult, ResourceResult
from .skills import LoadedSkill, SkillMismatch
from .sync import SyncClient
from .tasks import TASKS

__all__ = [
    "TASKS",
    "CallResult",
    "Client",
    "ClientCredentials",
    "Completion",
    "DPoPKey",
    "EnterpriseAuthorization",
    "Host",
    "LoadedSkill",
    "OAuth",
    "PromptResult",
    "ResourceResult",
    "SkillMismatch",
    "SyncClient",
    "WorkloadIdentity",
]
