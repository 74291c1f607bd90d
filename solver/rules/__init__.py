"""The rules of damage assignment, written once: the legal space of a combat damage step
(who assigns, to whom, under which conditions), its pairs and pieces, and the judges of
one split (:mod:`.validate`) and of many (:mod:`.validate_many`). Everything above reads
its rules from here.
"""
