"""The game as data: combat documents and the objects they describe."""
