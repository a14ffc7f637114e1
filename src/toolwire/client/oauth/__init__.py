"""OAuth for the client: the authorization code flow with a browser (:mod:`.flow`), the
machine flows (:mod:`.machine`: client credentials, enterprise authorization, workload
identity), DPoP proofs (:mod:`.dpop`), and what they share: discovery of the authorization
server (:mod:`.discovery`), its endpoints (:mod:`.endpoints`), the browser step
(:mod:`.browser`) and where tokens are kept (:mod:`.storage`).
"""

from .dpop import DPoPKey
from .flow import OAuth
from .machine import ClientCredentials, EnterpriseAuthorization, WorkloadIdentity
from .storage import MemoryStorage, Registration, Tokens, TokenStorage

__all__ = [
    "ClientCredentials",
    "DPoPKey",
    "EnterpriseAuthorization",
    "MemoryStorage",
    "OAuth",
    "Registration",
    "TokenStorage",
    "Tokens",
    "WorkloadIdentity",
]
