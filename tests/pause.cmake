# SPDX-License-Identifier: MIT
# Pausing and resuming recording by signal (SIGUSR1, SIGUSR2, tracer.start_paused),
# both engines, every target mode, on the real libcudart.
if(NVCC)
	ct_cuda_program(cudart_phases_shared "${CMAKE_CURRENT_SOURCE_DIR}/programs/cudart_phases.cu" SHARED)
endif()
ct_integration_test(pause "${CMAKE_CURRENT_SOURCE_DIR}/integration/test_pause.py" LABELS root)
