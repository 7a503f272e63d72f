"""Models: `provider:model` specs, the provider registry, credentials, provider error text."""
