"""The catalog of known errors: data files, their schema, and the index the matcher uses."""

from enrich.catalog.schema import CatalogError, Entry, Sample
from enrich.catalog.loader import Catalog, get_catalog, load_files, reset

__all__ = ["Catalog", "CatalogError", "Entry", "Sample", "get_catalog", "load_files", "reset"]
