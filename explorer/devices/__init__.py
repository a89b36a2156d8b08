"""/devices/: the device catalogue (catalogue/devices.py) as a page and its JSON twin."""
