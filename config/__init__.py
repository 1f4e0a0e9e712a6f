"""Shipped configuration: default toolbox rows, example settings and host configs."""
