"""``python -m krouter``: the same command as ``krouter`` (useful where the script is not on PATH)."""

from krouter.entry import run

if __name__ == "__main__":
    run()
