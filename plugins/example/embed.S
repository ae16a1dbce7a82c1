/* SPDX-License-Identifier: MIT */
/* Embeds the compiled BPF object in the plugin as ct_bpf_example_start/_end. */
	.section .rodata
	.balign 8
	.global ct_bpf_example_start
	.hidden ct_bpf_example_start
ct_bpf_example_start:
	.incbin "example.bpf.o"
	.global ct_bpf_example_end
	.hidden ct_bpf_example_end
ct_bpf_example_end:
	.section .note.GNU-stack,"",@progbits
