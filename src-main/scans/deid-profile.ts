/**
 * The attributes of DICOM PS3.15 Annex E's Basic Application Level Confidentiality Profile
 * (Table E.1-1, "Basic Profile" column) that scan2mesh acts on, with the action the table gives:
 *   X remove, Z keep the attribute with an empty value, U replace the UID with a new one
 *   (consistently within one package, so slices stay one series).
 * Where the table allows a choice (X/Z, Z/D, X/Z/D...) the strictest that keeps the file valid
 * for segmentation is used. Private attributes (odd groups) are removed as a whole; so are curve
 * data (50xx), overlay data and comments (60xx,3000 / 60xx,4000), digital signatures and trailing padding.
 * Attributes not listed (geometry, pixel description, acquisition physics) are kept.
 */
export type DeidAction = 'X' | 'Z' | 'U';

const TABLE: [string, DeidAction][] = [
  // Identification and dates of the study, series and instance.
  ['00080012', 'X'], // Instance Creation Date
  ['00080013', 'X'], // Instance Creation Time
  ['00080014', 'U'], // Instance Creator UID
  ['00080015', 'X'], // Instance Coercion DateTime
  ['00080018', 'U'], // SOP Instance UID
  ['00080020', 'Z'], // Study Date
  ['00080021', 'X'], // Series Date
  ['00080022', 'X'], // Acquisition Date
  ['00080023', 'Z'], // Content Date
  ['00080024', 'X'], // Overlay Date
  ['00080025', 'X'], // Curve Date
  ['0008002A', 'X'], // Acquisition DateTime
  ['00080030', 'Z'], // Study Time
  ['00080031', 'X'], // Series Time
  ['00080032', 'X'], // Acquisition Time
  ['00080033', 'Z'], // Content Time
  ['00080034', 'X'], // Overlay Time
  ['00080035', 'X'], // Curve Time
  ['00080050', 'Z'], // Accession Number
  ['00080051', 'X'], // Issuer of Accession Number Sequence
  ['00080080', 'X'], // Institution Name
  ['00080081', 'X'], // Institution Address
  ['00080082', 'X'], // Institution Code Sequence
  ['00080090', 'Z'], // Referring Physician's Name
  ['00080092', 'X'], // Referring Physician's Address
  ['00080094', 'X'], // Referring Physician's Telephone Numbers
  ['00080096', 'X'], // Referring Physician Identification Sequence
  ['0008009C', 'Z'], // Consulting Physician's Name
  ['0008009D', 'X'], // Consulting Physician Identification Sequence
  ['00080201', 'X'], // Timezone Offset From UTC
  ['00081010', 'X'], // Station Name
  ['00081030', 'X'], // Study Description
  ['0008103E', 'X'], // Series Description
  ['00081040', 'X'], // Institutional Department Name
  ['00081041', 'X'], // Institutional Department Type Code Sequence
  ['00081048', 'X'], // Physician(s) of Record
  ['00081049', 'X'], // Physician(s) of Record Identification Sequence
  ['00081050', 'X'], // Performing Physician's Name
  ['00081052', 'X'], // Performing Physician Identification Sequence
  ['00081060', 'X'], // Name of Physician(s) Reading Study
  ['00081062', 'X'], // Physician(s) Reading Study Identification Sequence
  ['00081070', 'X'], // Operators' Name
  ['00081072', 'X'], // Operator Identification Sequence
  ['00081080', 'X'], // Admitting Diagnoses Description
  ['00081084', 'X'], // Admitting Diagnoses Code Sequence
  ['00081110', 'X'], // Referenced Study Sequence
  ['00081111', 'X'], // Referenced Performed Procedure Step Sequence
  ['00081120', 'X'], // Referenced Patient Sequence
  ['00081140', 'X'], // Referenced Image Sequence
  ['00081155', 'U'], // Referenced SOP Instance UID
  ['00081195', 'U'], // Transaction UID
  ['00082111', 'X'], // Derivation Description
  ['00083010', 'U'], // Irradiation Event UID
  ['00084000', 'X'], // Identifying Comments
  // Patient.
  ['00100010', 'Z'], // Patient's Name
  ['00100020', 'Z'], // Patient ID
  ['00100021', 'X'], // Issuer of Patient ID
  ['00100022', 'X'], // Type of Patient ID
  ['00100024', 'X'], // Issuer of Patient ID Qualifiers Sequence
  ['00100030', 'Z'], // Patient's Birth Date
  ['00100032', 'X'], // Patient's Birth Time
  ['00100033', 'X'], // Patient's Birth Date in Alternative Calendar
  ['00100034', 'X'], // Patient's Death Date in Alternative Calendar
  ['00100040', 'Z'], // Patient's Sex
  ['00100050', 'X'], // Patient's Insurance Plan Code Sequence
  ['00100101', 'X'], // Patient's Primary Language Code Sequence
  ['00100102', 'X'], // Patient's Primary Language Modifier Code Sequence
  ['00101000', 'X'], // Other Patient IDs
  ['00101001', 'X'], // Other Patient Names
  ['00101002', 'X'], // Other Patient IDs Sequence
  ['00101005', 'X'], // Patient's Birth Name
  ['00101010', 'X'], // Patient's Age
  ['00101020', 'X'], // Patient's Size
  ['00101030', 'X'], // Patient's Weight
  ['00101040', 'X'], // Patient's Address
  ['00101050', 'X'], // Insurance Plan Identification
  ['00101060', 'X'], // Patient's Mother's Birth Name
  ['00101080', 'X'], // Military Rank
  ['00101081', 'X'], // Branch of Service
  ['00101090', 'X'], // Medical Record Locator
  ['00101100', 'X'], // Referenced Patient Photo Sequence
  ['00102000', 'X'], // Medical Alerts
  ['00102110', 'X'], // Allergies
  ['00102150', 'X'], // Country of Residence
  ['00102152', 'X'], // Region of Residence
  ['00102154', 'X'], // Patient's Telephone Numbers
  ['00102155', 'X'], // Patient's Telecom Information
  ['00102160', 'X'], // Ethnic Group
  ['00102180', 'X'], // Occupation
  ['001021A0', 'X'], // Smoking Status
  ['001021B0', 'X'], // Additional Patient History
  ['001021C0', 'X'], // Pregnancy Status
  ['001021D0', 'X'], // Last Menstrual Date
  ['001021F0', 'X'], // Patient's Religious Preference
  ['00102203', 'X'], // Patient's Sex Neutered
  ['00102297', 'X'], // Responsible Person
  ['00102299', 'X'], // Responsible Organization
  ['00104000', 'X'], // Patient Comments
  // Equipment and acquisition free text.
  ['00181000', 'X'], // Device Serial Number
  ['00181002', 'U'], // Device UID
  ['00181004', 'X'], // Plate ID
  ['00181005', 'X'], // Generator ID
  ['00181007', 'X'], // Cassette ID
  ['00181008', 'X'], // Gantry ID
  ['00181030', 'X'], // Protocol Name
  ['00181200', 'X'], // Date of Last Calibration
  ['00181201', 'X'], // Time of Last Calibration
  ['00181400', 'X'], // Acquisition Device Processing Description
  ['00184000', 'X'], // Acquisition Comments
  ['0018700A', 'X'], // Detector ID
  ['00189074', 'X'], // Frame Acquisition DateTime
  ['00189151', 'X'], // Frame Reference DateTime
  ['00189424', 'X'], // Acquisition Protocol Description
  ['0018A003', 'X'], // Contribution Description
  // Study and frame of reference identity.
  ['0020000D', 'U'], // Study Instance UID
  ['0020000E', 'U'], // Series Instance UID
  ['00200010', 'Z'], // Study ID
  ['00200052', 'U'], // Frame of Reference UID
  ['00200200', 'U'], // Synchronization Frame of Reference UID
  ['00203401', 'X'], // Modifying Device ID
  ['00203404', 'X'], // Modifying Device Manufacturer
  ['00203406', 'X'], // Modified Image Description
  ['00204000', 'X'], // Image Comments
  ['00209158', 'X'], // Frame Comments
  ['00209161', 'U'], // Concatenation UID
  ['00209164', 'U'], // Dimension Organization UID
  ['00284000', 'X'], // Image Presentation Comments
  // Requests, scheduling, visits.
  ['00320012', 'X'], // Study ID Issuer
  ['00321020', 'X'], // Scheduled Study Location
  ['00321021', 'X'], // Scheduled Study Location AE Title
  ['00321030', 'X'], // Reason for Study
  ['00321032', 'X'], // Requesting Physician
  ['00321033', 'X'], // Requesting Service
  ['00321060', 'X'], // Requested Procedure Description
  ['00321070', 'X'], // Requested Contrast Agent
  ['00324000', 'X'], // Study Comments
  ['00380004', 'X'], // Referenced Patient Alias Sequence
  ['00380010', 'X'], // Admission ID
  ['00380011', 'X'], // Issuer of Admission ID
  ['0038001E', 'X'], // Scheduled Patient Institution Residence
  ['00380020', 'X'], // Admitting Date
  ['00380021', 'X'], // Admitting Time
  ['00380040', 'X'], // Discharge Diagnosis Description
  ['00380050', 'X'], // Special Needs
  ['00380060', 'X'], // Service Episode ID
  ['00380061', 'X'], // Issuer of Service Episode ID
  ['00380062', 'X'], // Service Episode Description
  ['00380300', 'X'], // Current Patient Location
  ['00380400', 'X'], // Patient's Institution Residence
  ['00380500', 'X'], // Patient State
  ['00384000', 'X'], // Visit Comments
  ['00400001', 'X'], // Scheduled Station AE Title
  ['00400002', 'X'], // Scheduled Procedure Step Start Date
  ['00400003', 'X'], // Scheduled Procedure Step Start Time
  ['00400004', 'X'], // Scheduled Procedure Step End Date
  ['00400005', 'X'], // Scheduled Procedure Step End Time
  ['00400006', 'X'], // Scheduled Performing Physician's Name
  ['00400007', 'X'], // Scheduled Procedure Step Description
  ['0040000B', 'X'], // Scheduled Performing Physician Identification Sequence
  ['00400010', 'X'], // Scheduled Station Name
  ['00400011', 'X'], // Scheduled Procedure Step Location
  ['00400241', 'X'], // Performed Station AE Title
  ['00400242', 'X'], // Performed Station Name
  ['00400243', 'X'], // Performed Location
  ['00400244', 'X'], // Performed Procedure Step Start Date
  ['00400245', 'X'], // Performed Procedure Step Start Time
  ['00400250', 'X'], // Performed Procedure Step End Date
  ['00400251', 'X'], // Performed Procedure Step End Time
  ['00400253', 'X'], // Performed Procedure Step ID
  ['00400254', 'X'], // Performed Procedure Step Description
  ['00400275', 'X'], // Request Attributes Sequence
  ['00400280', 'X'], // Comments on the Performed Procedure Step
  ['00400555', 'X'], // Acquisition Context Sequence
  ['00401001', 'X'], // Requested Procedure ID
  ['00401004', 'X'], // Patient Transport Arrangements
  ['00401005', 'X'], // Requested Procedure Location
  ['00401010', 'X'], // Names of Intended Recipients of Results
  ['00401011', 'X'], // Intended Recipients of Results Identification Sequence
  ['00401101', 'X'], // Person Identification Code Sequence
  ['00401102', 'X'], // Person's Address
  ['00401103', 'X'], // Person's Telephone Numbers
  ['00401104', 'X'], // Person's Telecom Information
  ['00401400', 'X'], // Requested Procedure Comments
  ['00402001', 'X'], // Reason for the Imaging Service Request
  ['00402008', 'X'], // Order Entered By
  ['00402009', 'X'], // Order Enterer's Location
  ['00402010', 'X'], // Order Callback Phone Number
  ['00402011', 'X'], // Order Callback Telecom Information
  ['00402016', 'X'], // Placer Order Number / Imaging Service Request
  ['00402017', 'X'], // Filler Order Number / Imaging Service Request
  ['00402400', 'X'], // Imaging Service Request Comments
  ['00403001', 'X'], // Confidentiality Constraint on Patient Data Description
  ['0040A027', 'X'], // Verifying Organization
  ['0040A073', 'X'], // Verifying Observer Sequence
  ['0040A075', 'X'], // Verifying Observer Name
  ['0040A078', 'X'], // Author Observer Sequence
  ['0040A07A', 'X'], // Participant Sequence
  ['0040A07C', 'X'], // Custodial Organization Sequence
  ['0040A088', 'X'], // Verifying Observer Identification Code Sequence
  ['0040A123', 'X'], // Person Name
  ['0040A124', 'U'], // UID
  ['0040A730', 'X'], // Content Sequence
  ['0040DB0C', 'U'], // Template Extension Organization UID
  ['0040DB0D', 'U'], // Template Extension Creator UID
  ['00700084', 'Z'], // Content Creator's Name
  ['00700086', 'X'], // Content Creator's Identification Code Sequence
  ['00880140', 'U'], // Storage Media File-set UID
  ['00880200', 'X'], // Icon Image Sequence (a thumbnail may show burned-in text)
  ['30060024', 'U'], // Referenced Frame of Reference UID
  ['300600C2', 'U'], // Related Frame of Reference UID
  ['04000100', 'X'], // Digital Signature UID
  ['04000402', 'X'], // Referenced Digital Signature Sequence
  ['04000403', 'X'], // Referenced SOP Instance MAC Sequence
  ['04000404', 'X'], // MAC
  ['04000550', 'X'], // Modified Attributes Sequence
  ['04000561', 'X'], // Original Attributes Sequence
  ['40000010', 'X'], // Arbitrary
  ['40004000', 'X'], // Text Comments
  ['FFFAFFFA', 'X'], // Digital Signatures Sequence
  ['FFFCFFFC', 'X'], // Data Set Trailing Padding
];

const ACTIONS = new Map<string, DeidAction>(TABLE.map(([t, a]) => [`x${t.toLowerCase()}`, a]));

/** The action for a tag written as dicom-parser does ('x00100010'); undefined means keep. */
export function deidAction(tag: string): DeidAction | undefined {
  const group = parseInt(tag.slice(1, 5), 16);
  const element = tag.slice(5);
  if (group % 2 === 1) return 'X'; // private attributes and their creators
  if (group >= 0x5000 && group <= 0x50ff && group % 2 === 0) return 'X'; // curve data
  if (group >= 0x6000 && group <= 0x60ff && (element === '3000' || element === '4000')) return 'X'; // overlay data, comments
  if (group === 0x4008) return 'X'; // interpretation results and their authors
  if (element === '0000' && group !== 0x0002) return 'X'; // group lengths would be wrong after editing
  return ACTIONS.get(tag);
}
