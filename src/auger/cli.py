"""Entry point placeholder (replaced by the real CLI)."""


def main() -> int:
    return 0
