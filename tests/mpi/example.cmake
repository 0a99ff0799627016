# The bundled example benchmark (src/tools/example.cpp) and the overhead
# benchmark of the library in off mode (src/tools/bench-overhead.cpp).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_example.py LABELS example)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_example_overhead.py TIMEOUT 600 LABELS example)
