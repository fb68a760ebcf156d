"""Networks of the detector."""
