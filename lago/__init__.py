"""The Lago project package: settings, environment, logging, error tracking, urls and entry
points."""
