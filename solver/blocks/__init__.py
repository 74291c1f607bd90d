"""SPEC §11: blocks and attacks. The legality of a declaration is written once, in
:mod:`trample.models.game.declarations` (508.1, 509.1a-b, the requirements of 509.1c),
where the game model's ``declare_combat`` reads it too; here are the space of legal
declarations (:mod:`.space`: counting, listing, one blocker's options, and the 509.1c
maximum), the exact value of one (:mod:`.value`) and the search for the best
(:mod:`.search`)."""
