#ifndef HEALTHTRAIL_CLIBXML2_SHIM_H
#define HEALTHTRAIL_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, whose headers clash with the ICU copy inside Swift's
// Foundation. HealthTrail never touches encoding handlers (exports are UTF-8), so hide ICU.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#endif
