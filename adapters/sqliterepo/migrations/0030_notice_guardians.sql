-- Which student notices a school copies to guardians (a JSON array of
-- library.GuardianCopyKinds) and how families reach the library. A school's
-- settings saved before copy nothing and name no contact.
ALTER TABLE notice_settings ADD COLUMN guardian_copies TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(guardian_copies));
ALTER TABLE notice_settings ADD COLUMN contact TEXT NOT NULL DEFAULT '';
