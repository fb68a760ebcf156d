"""Sequence models."""
