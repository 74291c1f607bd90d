"""The game as data: cards and faces, the game state, and its pure transitions (transform,
mill, Sagas, declaring combat, dealing damage, bands), with the state's JSON. Reads
documents from :mod:`trample.models.document`; knows no rule of damage assignment.
"""
