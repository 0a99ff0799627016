# Issue 45: sides interleaved barrier by barrier inside one run
# (HARMONIZE_INTERLEAVE), paired block by block.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_interleave.py TIMEOUT 600)
