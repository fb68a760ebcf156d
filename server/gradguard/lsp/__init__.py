"""The language server: the only package that imports pygls and lsprotocol."""
