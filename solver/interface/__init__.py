"""How trample is called: the dict-in/dict-out API, the command line, the JSON-RPC engine,
batch runs, the Gymnasium adapter, the demos, and the solver in the game loop.
"""
