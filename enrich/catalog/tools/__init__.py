"""Maintenance tools over the catalog and engine releases: flag tables, verification."""
