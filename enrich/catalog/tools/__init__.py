"""Catalog authoring: lint, drift against engine source, reference pages, drafts, figures."""
