/* The OpenCL error classes (app_opencl/cl_util.c): each code the apps
 * meet is temporary (ORR_ERR_DEVICE, exit 75: BOINC's temporary exit,
 * another try on this host may work) or permanent for this host
 * (ORR_ERR_DEVICE_UNFIT, exit 78: an error, so the server sends the task
 * elsewhere), and cl_fail's message names the call and the code; and the
 * device layer's policy for work that can never fit a device
 * (common/device/device.c), which every API shares. */
#include <CUnit/Basic.h>
#include <string.h>

#include "cl_util.h"
#include "device/device.h"

static void test_temporary(void)
{
    /* busy, gone now, or memory short now */
    static const cl_int codes[] = {CL_DEVICE_NOT_AVAILABLE, CL_DEVICE_NOT_FOUND,
                                   CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES,
                                   CL_OUT_OF_HOST_MEMORY};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CU_ASSERT_EQUAL(cl_status(codes[i]), ORR_ERR_DEVICE);
        if (cl_status(codes[i]) != ORR_ERR_DEVICE)
            printf("\n  %s (%d) is not temporary\n", cl_error_name(codes[i]), (int)codes[i]);
    }
}

static void test_permanent(void)
{
    /* kernels that do not build, limits of this device, mistakes the same
     * build makes here every time, and a code nobody listed */
    static const cl_int codes[] = {CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS,
                                   CL_COMPILER_NOT_AVAILABLE, CL_INVALID_KERNEL_NAME,
                                   CL_INVALID_PROGRAM_EXECUTABLE, CL_INVALID_WORK_GROUP_SIZE,
                                   CL_INVALID_WORK_ITEM_SIZE, CL_INVALID_BUFFER_SIZE,
                                   CL_INVALID_KERNEL_ARGS, CL_INVALID_VALUE, CL_INVALID_DEVICE,
                                   CL_LINK_PROGRAM_FAILURE, -9999};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CU_ASSERT_EQUAL(cl_status(codes[i]), ORR_ERR_DEVICE_UNFIT);
        if (cl_status(codes[i]) != ORR_ERR_DEVICE_UNFIT)
            printf("\n  %s (%d) is not permanent\n", cl_error_name(codes[i]), (int)codes[i]);
    }
    CU_ASSERT_EQUAL(cl_status(CL_SUCCESS), ORR_OK);
}

static void test_messages_and_exit_codes(void)
{
    orr_error err;
    orr_error_clear(&err);
    CU_ASSERT_EQUAL(cl_fail(&err, CL_BUILD_PROGRAM_FAILURE, "building the kernels"),
                    ORR_ERR_DEVICE_UNFIT);
    CU_ASSERT_EQUAL(err.status, ORR_ERR_DEVICE_UNFIT);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "OpenCL: building the kernels: CL_BUILD_PROGRAM_FAILURE (-11)");
    CU_ASSERT_EQUAL(orr_status_exit_code(err.status), 78);
    CU_ASSERT_FALSE(orr_status_is_transient(err.status));
    CU_ASSERT_EQUAL(cl_fail(&err, CL_MEM_OBJECT_ALLOCATION_FAILURE, "allocating device memory"),
                    ORR_ERR_DEVICE);
    CU_ASSERT_STRING_EQUAL(err.message, "OpenCL: allocating device memory: "
                                        "CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)");
    CU_ASSERT_EQUAL(orr_status_exit_code(err.status), 75);
    CU_ASSERT_TRUE(orr_status_is_transient(err.status));
    CU_ASSERT_STRING_EQUAL(cl_error_name(-9999), "OpenCL error");
}

/* Work that can never fit a device is permanent for the host (78); what
 * fits its memory, or a device whose sizes are not known, is left to the
 * allocation, whose failure then is the API's temporary class. */
static void test_device_check_fits(void)
{
    static const orr_device_api api = {"OpenCL", NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    orr_device d;
    memset(&d, 0, sizeof d);
    d.api = &api;
    snprintf(d.name, sizeof d.name, "test device");
    d.memory_bytes = 1e9;
    d.max_buffer_bytes = 2.5e8;
    orr_error err;
    orr_error_clear(&err);
    CU_ASSERT_EQUAL(orr_device_check_fits(&d, 1e9, 2.5e8, "one point", &err), ORR_OK);
    CU_ASSERT_EQUAL(orr_device_check_fits(&d, 1e9 + 1, 1e3, "one point", &err),
                    ORR_ERR_DEVICE_UNFIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "one point needs 1000000001 bytes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "OpenCL device test device has 1000000000"));
    CU_ASSERT_EQUAL(orr_device_check_fits(&d, 3e8, 2.5e8 + 1, "one point", &err),
                    ORR_ERR_DEVICE_UNFIT);
    CU_ASSERT_EQUAL(err.status, ORR_ERR_DEVICE_UNFIT);
    d.memory_bytes = d.max_buffer_bytes = 0;   /* not known: no refusal */
    CU_ASSERT_EQUAL(orr_device_check_fits(&d, 1e18, 1e18, "one point", &err), ORR_OK);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return CU_get_error();
    CU_pSuite s = CU_add_suite("OpenCL error classes", NULL, NULL);
    CU_add_test(s, "temporary: busy, lost, memory short now", test_temporary);
    CU_add_test(s, "permanent: build, device limits, unlisted", test_permanent);
    CU_add_test(s, "cl_fail: message, status, exit code", test_messages_and_exit_codes);
    CU_add_test(s, "device: work that can never fit", test_device_check_fits);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    const unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
