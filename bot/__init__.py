"""The application: configuration, the game service, storage, verifiable dice, rendering,
permissions, the console and the command-line tools. Built on :mod:`rules_core`."""
