"""Legal splits as actions (rank, unrank, options, project), the union of splits of
attackers that may assign as though unblocked, and both damage steps at once (``plan``).
"""
