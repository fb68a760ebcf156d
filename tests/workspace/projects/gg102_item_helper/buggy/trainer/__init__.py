"""The training package."""
