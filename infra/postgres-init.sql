-- The schema registry keeps its schemas in its own database beside Earshot's.
CREATE DATABASE registry OWNER earshot;
