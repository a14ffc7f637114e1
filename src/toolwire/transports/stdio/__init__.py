"""stdio: serving one client over stdin/stdout (:mod:`.serving`), the guard that keeps them
for the protocol alone (:mod:`.guard`), how the process stops on a signal (:mod:`.stopping`),
and lines written at the end of the read that brought them about (:mod:`.writes`)."""
