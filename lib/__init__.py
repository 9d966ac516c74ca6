"""Framework-light helpers every app may use (like healthchecks' hc/lib): no Lago app imports
here."""
