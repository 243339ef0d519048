"""Rating studies: judge scores against human ratings, designs against each other."""
