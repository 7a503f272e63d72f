"""Middleware shaping what the model is told: memory, skills, the project-facts note, plan
mode, the compact profile."""
