// SPDX-License-Identifier: MIT
/*
 * A stand-in libamdhip64 whose allocation calls succeed (see
 * fake_cudart.c; Debian's real one fails them without an AMD GPU).
 */
#include <hip/hip_runtime_api.h>
#include "bump.h"

#define NEW(type) ((type)bump(0x7c0000000000))

hipError_t hipMalloc(void **p, size_t n) { *p = NEW(void *); return hipSuccess; }
hipError_t hipMallocPitch(void **p, size_t *pitch, size_t w, size_t h)
{
	*p = NEW(void *);
	*pitch = pitch_of(w);
	return hipSuccess;
}

hipError_t hipHostMalloc(void **p, size_t n, unsigned int f) { *p = NEW(void *); return hipSuccess; }
hipError_t hipMallocManaged(void **p, size_t n, unsigned int f) { *p = NEW(void *); return hipSuccess; }
hipError_t hipMallocAsync(void **p, size_t n, hipStream_t s) { *p = NEW(void *); return hipSuccess; }
hipError_t hipExtMallocWithFlags(void **p, size_t n, unsigned int f) { *p = NEW(void *); return hipSuccess; }
hipError_t hipMallocArray(hipArray **a, const hipChannelFormatDesc *d, size_t w, size_t h, unsigned int f)
{
	*a = NEW(hipArray *);
	return hipSuccess;
}

hipError_t hipMalloc3D(hipPitchedPtr *pp, hipExtent e)
{
	*pp = (hipPitchedPtr){ NEW(void *), pitch_of(e.width), e.width, e.height };
	return hipSuccess;
}

hipError_t hipMalloc3DArray(hipArray **a, const struct hipChannelFormatDesc *d, struct hipExtent e, unsigned int f)
{
	*a = NEW(hipArray *);
	return hipSuccess;
}

hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *m, const struct hipChannelFormatDesc *d, struct hipExtent e,
				   unsigned int levels, unsigned int f)
{
	*m = NEW(hipMipmappedArray_t);
	return hipSuccess;
}

hipError_t hipArrayCreate(hipArray **a, const HIP_ARRAY_DESCRIPTOR *d) { *a = NEW(hipArray *); return hipSuccess; }
hipError_t hipArray3DCreate(hipArray **a, const HIP_ARRAY3D_DESCRIPTOR *d) { *a = NEW(hipArray *); return hipSuccess; }
hipError_t hipFreeMipmappedArray(hipMipmappedArray_t m) { return hipSuccess; }
hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *h, size_t n, const hipMemAllocationProp *p,
			unsigned long long f)
{
	*h = NEW(hipMemGenericAllocationHandle_t);
	return hipSuccess;
}
hipError_t hipMemRelease(hipMemGenericAllocationHandle_t h) { return hipSuccess; }
hipError_t hipArrayDestroy(hipArray *a) { return hipSuccess; }
hipError_t hipHostRegister(void *p, size_t n, unsigned int f) { return hipSuccess; }
hipError_t hipHostUnregister(void *p) { return hipSuccess; }
hipError_t hipFree(void *p) { return hipSuccess; }
hipError_t hipHostFree(void *p) { return hipSuccess; }
hipError_t hipFreeAsync(void *p, hipStream_t s) { return hipSuccess; }
hipError_t hipFreeArray(hipArray *a) { return hipSuccess; }
