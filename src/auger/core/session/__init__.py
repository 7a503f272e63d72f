"""A conversation on one thread: the Session, its turn loop, stream translation, turn input, compaction."""
