"""The client side: connect to any MCP server and use its tools, resources and prompts."""

from .client import CallResult, Client
from .host.host import Host
from .oauth.dpop import DPoPKey
from .oauth.flow import OAuth
from .oauth.machine import ClientCredentials, EnterpriseAuthorization, WorkloadIdentity
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
