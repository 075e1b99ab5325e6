print("fpx-seek placeholder")
