"""One behaviour per module; the order they run in is the list in `auger.core.agent.graph`."""
