"""Imported judgments: answers a user already has, read from files through a study's
`[[imports]]` mapping and stored as judgments whose source is "import"."""
