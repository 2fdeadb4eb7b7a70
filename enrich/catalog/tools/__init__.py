"""Catalog authoring: lint, samples, drift against engine source, reference pages, drafts, figures,
the per-release flag tables and `catalog verify` against release sources."""
