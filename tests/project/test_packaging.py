"""The installed (non-editable) wheel finds its bundled corpus and runs the demo."""

import unittest





if __name__ == "__main__":
    unittest.main()
