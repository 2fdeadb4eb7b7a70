"""What changes the host process: install/uninstall, exception hooks, wrapping of the
integrations' targets, and the launcher that activates enrich in every process of a tree."""
