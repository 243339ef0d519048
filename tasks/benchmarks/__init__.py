"""Benchmark loaders: raw upstream files → validated `items` and `ratings` tables."""
