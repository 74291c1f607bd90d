"""SPEC §11: blocks and attacks. The legality of declarations (:mod:`.legality`, the one
place 508.1 and 509.1a-c are written), counting and listing them (:mod:`.declarations`),
the exact value of one (:mod:`.value`) and the search for the best (:mod:`.search`)."""
