"""What the notebooks use around the lesson: charts, widgets, exercises, batch runs, student copies."""
