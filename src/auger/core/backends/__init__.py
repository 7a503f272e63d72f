"""Where the agent's file tools and shell run: local shell, bubblewrap sandbox, the user-folder mounts."""
