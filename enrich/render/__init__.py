"""How enrich reads to people: the note in a traceback, and an entry's reference page."""
