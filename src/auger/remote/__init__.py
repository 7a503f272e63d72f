"""The client of `auger serve` (`auger --connect URL`)."""
