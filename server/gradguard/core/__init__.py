"""Pure core: findings, fixes, settings, suppression and the engine that ties them together.

Nothing here imports pygls, lsprotocol or libcst at module import time.
"""
