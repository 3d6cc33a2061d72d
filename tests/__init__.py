import pytest

# The helpers' own asserts (tests.support) explain a failure as the tests' asserts do.
pytest.register_assert_rewrite("tests.support")
