"""The offline verifier page, ``verify.html``: a player opens it in a browser and drops an export
in; it checks the hash chain, the seeds' commitments and every die with the browser's WebCrypto
(attached by ``/game export page:true``; docs/EXPORT.md)."""

from importlib import resources

PAGE_NAME = "verify.html"


def verifier_page() -> bytes:
    """The page's bytes, as shipped in the package."""
    return resources.files(__name__).joinpath(PAGE_NAME).read_bytes()


__all__ = ["PAGE_NAME", "verifier_page"]
