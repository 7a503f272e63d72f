"""What a user keeps in their folders: skills, subagent definitions, memory files (no agent imports)."""
