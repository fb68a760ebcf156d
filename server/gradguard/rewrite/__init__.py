"""Building blocks for fixes: minimal text edits computed from `ast` positions, and
libcst transformations of the smallest enclosing statement where structure changes."""
