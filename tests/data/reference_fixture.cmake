# Included by ctest after the discovered tests are defined: the data test that reads the
# PyTorch reference's output waits for the fixture that trains it (tests/mnist).
set_tests_properties(NpmMnist.MatchesThePyTorchReference PROPERTIES FIXTURES_REQUIRED mnist_reference)
